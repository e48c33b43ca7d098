# Builds /app/targets and /app/links: working and broken links, relative and absolute, one chain, one link to a folder.
set -e
mkdir -p /app/targets/data /app/links/current /app/links/old
cd /app/targets
echo "report" > report.txt
echo "config" > app.conf
echo "v1" > data/v1.csv
echo "v2" > data/v2.csv
echo "removed soon" > gone.txt
cd /app/links
ln -s /app/targets/report.txt report
ln -s ../targets/app.conf config
ln -s /app/targets/gone.txt notes
ln -s /app/targets/data data
ln -s /app/targets/missing.txt missing
echo "a plain file" > plain.txt
cd current
ln -s /app/targets/data/v2.csv latest.csv
ln -s ../../targets/data/v3.csv next.csv
ln -s ../notes notes-again
cd ../old
ln -s /app/targets/data/v1.csv first.csv
ln -s /app/targets/data/v0.csv "zero version.csv"
ln -s /app/links/current/latest.csv latest-copy.csv
rm /app/targets/gone.txt
