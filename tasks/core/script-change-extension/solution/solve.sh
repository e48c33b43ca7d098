#!/bin/bash
cat > /app/chext.sh <<'SH'
#!/bin/bash
# Usage: chext.sh DIR OLD NEW -- renames DIR/*.OLD to DIR/*.NEW (not in subdirectories).
dir=$1 old=$2 new=$3
for file in "$dir"/*."$old"; do
    [ -f "$file" ] || continue
    mv -- "$file" "${file%.$old}.$new"
done
SH
chmod +x /app/chext.sh
