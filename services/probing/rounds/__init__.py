"""A worker's rounds: the lanes of groups behind each mail server, drained over kept sessions, probed and
saved."""
