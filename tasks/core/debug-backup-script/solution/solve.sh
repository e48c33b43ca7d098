#!/bin/bash
cat > /app/backup.sh <<'SH'
#!/bin/bash
# Usage: backup.sh SOURCE_DIR DEST_DIR
# Copies every .txt file of SOURCE_DIR into DEST_DIR, adding .bak to its name.
src=$1
dest=$2
mkdir -p "$dest"
count=0
for file in "$src"/*.txt; do
    [ -f "$file" ] || continue
    cp -- "$file" "$dest/$(basename "$file").bak"
    count=$((count + 1))
done
echo "backed up $count files"
SH
