"""Neural-network building blocks: Module, layers, losses, init and utilities (issue 3)."""
