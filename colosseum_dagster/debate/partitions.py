"""Epochs as Dagster partitions: dynamic, added by the epoch sensor as the chain reaches each one
(keys are the epoch number zero-padded to seven digits, ``colosseum_core.debate.epochs``)."""

import dagster as dg

epoch_partitions = dg.DynamicPartitionsDefinition(name="debate_epochs")
