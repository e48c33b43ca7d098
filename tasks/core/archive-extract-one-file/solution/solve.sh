#!/bin/bash
member=$(tar -tzf /app/backup.tar.gz | grep '/settings\.ini$')
tar -xzf /app/backup.tar.gz -O "$member" > /app/settings.ini
