"""`python -m harness_evo.world cli ARGS`: the `harness-evo` command with the world's scripted models
(WORLD_FILL_DISK=N:FILE fills the disk FILE is on once N rollouts are recorded); `python -m harness_evo.world RUN_FOLDER
MOMENT`: continue that run and wait to be killed at MOMENT (see `harness_evo.world.MOMENTS`)."""

import os
import sys
from pathlib import Path

from harness_evo.entry import INTERRUPTED

try:
    from harness_evo.world import continue_until, fill_disk_after, register

    register()
except KeyboardInterrupt:  # Ctrl-C while the command still imports (litellm takes seconds) is a notice, as it is for
    sys.stderr.write("interrupted before anything started; nothing was recorded\n")  # `harness-evo` itself
    sys.exit(INTERRUPTED)

if sys.argv[1] == "cli":
    from harness_evo.entry import main

    if fill := os.environ.get("WORLD_FILL_DISK"):
        after, ballast = fill.split(":", 1)
        fill_disk_after(int(after), Path(ballast))
    sys.argv = ["harness-evo", *sys.argv[2:]]
    main()
else:
    continue_until(Path(sys.argv[1]), sys.argv[2])
