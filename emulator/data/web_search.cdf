# Web-search workload flow sizes (DCTCP, SIGCOMM'10), as published in the
# pFabric paper (SIGCOMM'13, Fig. 4). Columns: flow size in bytes, CDF.
# Sizes between points are interpolated linearly.
0 0
10000 0.15
20000 0.2
30000 0.3
50000 0.4
80000 0.53
200000 0.6
1000000 0.7
2000000 0.8
5000000 0.9
10000000 0.97
30000000 1
