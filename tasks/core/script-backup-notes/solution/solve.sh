#!/bin/bash
cat > /app/backup.sh <<'SH'
#!/bin/bash
cp /app/data/notes.txt /app/data/notes.txt.bak
SH
chmod +x /app/backup.sh
bash /app/backup.sh
ls -l /app/data
