#!/bin/bash
cat > /app/wordcount.sh <<'SH'
#!/bin/bash
wc -w < "$1"
SH
chmod +x /app/wordcount.sh
bash /app/wordcount.sh /app/poem.txt
