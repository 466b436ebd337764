"""Players: the custom user model, API tokens (hashed, named, revocable) and profiles."""
