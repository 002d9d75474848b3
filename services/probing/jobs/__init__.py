"""A job's course through probing: planned into domain groups, dispatched to lanes, settled, completed."""
