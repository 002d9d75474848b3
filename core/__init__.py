"""The bottom layer: the clock and time helpers every other layer may use; imports nothing of the service."""
