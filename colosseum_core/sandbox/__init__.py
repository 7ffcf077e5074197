"""Running untrusted programs: bubblewrap, with no network, no host files and hard limits."""
