set -e
echo "syncing data"
mkdir -p /tmp/sync
cp /app/data/*.csv /tmp/sync/
echo "synced"
