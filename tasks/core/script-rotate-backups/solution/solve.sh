#!/bin/bash
cat > /app/rotate.sh <<'SH'
#!/bin/bash
# Usage: rotate.sh DIR KEEP -- deletes all but the KEEP newest backup-YYYYMMDD.tar.gz files of DIR (by the date in the name).
dir=$1 keep=$2
find "$dir" -maxdepth 1 -type f -name 'backup-[0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9].tar.gz' -printf '%f\n' \
    | sort -r | tail -n +"$((keep + 1))" \
    | while read -r name; do rm -- "$dir/$name"; done
SH
chmod +x /app/rotate.sh
