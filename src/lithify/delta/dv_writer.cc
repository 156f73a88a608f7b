// DV writer: implementation pending (work in progress).
