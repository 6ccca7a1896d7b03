"""Training-state snapshots: capture and restore weights, optimizer, scheduler, RNG and data position."""
