"""``python -m urlnorm.typed``: write the column functions' stubs again from the table."""

from urlnorm.typed import write

for written in write():
    print(written)
