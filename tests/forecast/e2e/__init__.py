"""The forecasting arena end to end: cards through the real Definitions and local servers."""
