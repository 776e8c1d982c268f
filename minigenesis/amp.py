"""Mixed precision: autocast and GradScaler (issue 5)."""
