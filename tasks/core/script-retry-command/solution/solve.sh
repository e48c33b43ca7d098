#!/bin/bash
cat > /app/retry.sh <<'SH'
#!/bin/bash
# Usage: retry.sh N COMMAND [ARGS...] -- runs COMMAND up to N times until it succeeds.
attempts=$1
shift
status=1
for ((attempt = 1; attempt <= attempts; attempt++)); do
    "$@" && exit 0
    status=$?
done
exit "$status"
SH
chmod +x /app/retry.sh
