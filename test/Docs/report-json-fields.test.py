"""Prints each JSON key of the given files missing from the doc as `key`."""
import json
import sys


def keys(value, found):
    if isinstance(value, dict):
        for key, item in value.items():
            found.add(key)
            keys(item, found)
    elif isinstance(value, list):
        for item in value:
            keys(item, found)
    return found


doc = open(sys.argv[1]).read()
found = set()
for path in sys.argv[2:]:
    keys(json.load(open(path)), found)
missing = sorted(key for key in found if "`%s`" % key not in doc)
for key in missing:
    print("undocumented: " + key)
if not missing:
    print("every field documented (%d)" % len(found))
