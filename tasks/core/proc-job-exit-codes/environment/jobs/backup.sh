echo "backing up /app/data"
tar -cf /tmp/backup.tar -C /app jobs
echo "backup written to /tmp/backup.tar"
