// Transaction: implementation pending (work in progress).
