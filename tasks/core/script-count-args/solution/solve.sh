#!/bin/bash
cat > /app/nargs.sh <<'SH'
#!/bin/bash
echo "$#"
SH
chmod +x /app/nargs.sh
bash /app/nargs.sh apple banana cherry
