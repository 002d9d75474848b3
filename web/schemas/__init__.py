"""Request and response models: they validate input, shape output and are the OpenAPI schemas."""
