"""Auditing finished games: the public record (``export``, Django side), the independent verifier (``verify``,
pure: no database, no Django) and the replay (``replay``, pure). The record format is specified in
``docs/AUDIT.md``."""
