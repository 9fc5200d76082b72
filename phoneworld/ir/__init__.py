"""The IR: pydantic models only. The single contract between passes; imports nothing else from phoneworld."""
