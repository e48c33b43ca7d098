#!/bin/bash
set -euo pipefail
cat > /app/run.sh <<'SH'
#!/bin/bash
export LOG_LEVEL="${LOG_LEVEL-info}"
export DATA_DIR=/app/data
exec python3 /app/app.py "$@"
SH
chmod +x /app/run.sh
/app/run.sh jan.csv "feb 2024.csv"
