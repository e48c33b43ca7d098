#!/bin/bash
cat > /app/env.sh <<'SH'
export GREETING=hello
export TARGET=world
SH
bash -c 'source /app/env.sh && bash -c "echo \$GREETING \$TARGET"'
