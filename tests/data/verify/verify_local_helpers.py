"""A sibling module imported by local_import.py: verification must find it on sys.path."""

OFFSET = 0.5
