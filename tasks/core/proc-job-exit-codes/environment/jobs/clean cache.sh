mkdir -p /tmp/cache
rm -rf /tmp/cache/*
echo "cache cleaned"
test -z "$(ls /tmp/cache)"
