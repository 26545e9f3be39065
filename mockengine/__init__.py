"""mockengine: a self-hosted mock of the OpenAI Realtime API (the HyperStudy Realtime Profile)."""

__version__ = "0.1.0"
