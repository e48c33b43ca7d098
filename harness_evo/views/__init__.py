"""Rich renderables for the terminal: each view collects the facts of a run from its run.db, then renders them."""
