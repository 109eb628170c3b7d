# collector/: build rules (filled in by its stage).
