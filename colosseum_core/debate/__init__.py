"""The Compelle debate arena: miners' strategies committed on a chain, topics from markets, debates
between two miners judged by a two-model panel, Elo, a Swiss bracket and a crown.

``strategy`` reads a commitment (inline text, or a gist pointer pinned to a revision) and resolves
it to the strategy's bytes and hash; ``entry`` holds the entry checks, one module per published rule,
run in their order every epoch; ``prompts`` the prompts, verbatim and versioned; ``rules`` every
version the arena records with what it produced.
"""
