// transaction: implementation pending (work in progress).
