"""Keeping the work alive: holds renewed by live processes, dead workers buried, the sweeper and recovery."""
