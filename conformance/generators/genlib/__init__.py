"""Builders of the generated corpus sets (gen-valid, gen-invalid, gen-malformed of v1 and v2)."""
