echo "verifying checksums"
exit -1
