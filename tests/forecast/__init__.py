"""The forecasting arena (colosseum_core/forecast), stage by stage."""
