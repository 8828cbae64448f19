"""Model backends (encoders now; chat models and transcription in later issues)."""
