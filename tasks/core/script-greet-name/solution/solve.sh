#!/bin/bash
cat > /app/greet.sh <<'SH'
#!/bin/bash
echo "Hello, $1!"
SH
chmod +x /app/greet.sh
/app/greet.sh Alice
