# bench/: build rules (filled in by its stage).
