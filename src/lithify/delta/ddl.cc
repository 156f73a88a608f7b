// DDL/create: implementation pending (work in progress).
