// data writer: implementation pending (work in progress).
