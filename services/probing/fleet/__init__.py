"""What every process of the fleet shares: the probing rules (``policy``, pure), politeness applied in Redis,
the engine's shared DNS and catch-all caches."""
