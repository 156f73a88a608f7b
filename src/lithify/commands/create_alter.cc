// implementation pending (work in progress).
