// stats writer: implementation pending (work in progress).
