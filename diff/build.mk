# diff/: build rules (filled in by its stage).
