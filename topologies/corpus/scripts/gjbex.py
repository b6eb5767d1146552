import json, subprocess, sys
sys.path.insert(0, '/work/wt/corpus-draft/scripts')
import mlcparse
REPO = '/work/.mirror/gjbex+Code-optimization/repo'
HEAD = 'd917fb88316b4ce51abbb5bb195ebb9afd331927'
def show(p): return subprocess.check_output(['git', '-C', REPO, 'show', f'HEAD:{p}']).decode()
def commit_of(p): return subprocess.check_output(['git', '-C', REPO, 'log', '-1', '--format=%H %ad', '--date=short', '--', p]).decode().split()
def url(p): return f'https://github.com/gjbex/Code-optimization/blob/{HEAD}/{p}'
def src(p, title, loc):
    c, d = commit_of(p)
    return {'url': url(p), 'title': title, 'date': f'{d} (last commit touching the file: {c})', 'quote_or_location': loc}
DS = 'Intel product datasheet (ark.intel.com product page) -- NOT opened in this session; typical published value, verify before use'
machines = [
 dict(id='ivybridge-e5-2680v2-2s', g='ivybridge', tool='mlc v3.1a',
  machine='2 x Intel Xeon E5-2680 v2 (Ivy Bridge-EP), HT off, HP ProLiant-style DIMM part numbers (HP 712382-071); from the KU Leuven/VSC "Code optimization" training repository info/ folder',
  spec={'sockets': (2, 'S2 (physical id 0 and 1, 10 processors each)'), 'cpu_model': ('Intel(R) Xeon(R) CPU E5-2680 v2 @ 2.80GHz', 'S2'),
        'cores_per_socket': (10, 'S2 (cpu cores: 10)'), 'threads_per_core': (1, 'S2 (siblings 10 = cpu cores 10)'),
        'l3_per_socket_kib': (25600, 'S2 (cache size: 25600 KB)'), 'numa_mode': ('2 NUMA nodes (one per socket), per the 2x2 MLC matrices', 'S1'),
        'memory_kind': ('DDR3 (dmidecode Type: DDR3), HP part 712382-071, dual rank, 8192 MB', 'S3'),
        'memory_mts': (1866, 'S3 (Configured Clock Speed: 1866 MHz)'),
        'dimms_installed': ('8 x 8 GB: PROC 1 DIMM 1,3,6,8 and PROC 2 DIMM 1,3,6,8 (4 per socket)', 'S3'),
        'memory_total_kib': (65931872, 'S4 (MemTotal)')},
  datasheet={'memory_channels_per_socket': 4, 'l2_per_core_kib': 256, 'qpi_links': '2 x 8.0 GT/s'},
  extra_files={'S2': 'info/ivybridge_cpuinfo.txt', 'S3': 'info/ivybridge_memspecs.txt', 'S4': 'info/ivybridge_meminfo.txt'},
  notes='mlc v3.1a: latency figures say "Measuring idle latencies (in ns)" (no random-access wording; prefetchers presumably disabled by mlc). "Measuring Peak Memory Bandwidths for the system" is the v3.1 name of the peak injection test. c2c remote figures are LLC->LLC HITM (v3.1a wording). DIMMs per channel: 4 DIMMs per socket on a 4-channel part suggests 1 DPC (inference, not stated).'),
 dict(id='haswell-e5-2680v3-2s', g='haswell', tool='mlc v3.1a',
  machine='2 x Intel Xeon E5-2680 v3 (Haswell-EP), HT off, HP DIMMs (762200-081); KU Leuven/VSC training repository',
  spec={'sockets': (2, 'S2'), 'cpu_model': ('Intel(R) Xeon(R) CPU E5-2680 v3 @ 2.50GHz', 'S2'), 'cores_per_socket': (12, 'S2 (cpu cores: 12)'),
        'threads_per_core': (1, 'S2 (siblings 12 = cpu cores 12)'), 'l3_per_socket_kib': (30720, 'S2 (cache size: 30720 KB)'),
        'numa_mode': ('2 NUMA nodes (one per socket; no Cluster-on-Die split visible), per the 2x2 MLC matrices', 'S1'),
        'memory_kind': ('DDR4 registered (HP part 762200-081, dual rank, 8192 MB) -- DDR4 implied by Haswell-EP, not printed', 'S3'),
        'memory_mts': (2133, 'S3 (Configured Clock Speed: 2133 MHz)'),
        'dimms_installed': ('8 x 8 GB: PROC 1 DIMM 1,3,6,8 and PROC 2 DIMM 1,3,6,8 (4 per socket)', 'S3'), 'memory_total_kib': (65843708, 'S4 (MemTotal)')},
  datasheet={'memory_channels_per_socket': 4, 'l2_per_core_kib': 256, 'qpi_links': '2 x 9.6 GT/s'},
  extra_files={'S2': 'info/haswell_cpuinfo.txt', 'S3': 'info/haswell_memspecs.txt', 'S4': 'info/haswell_meminfo.txt'},
  notes='mlc v3.1a (see ivybridge notes on wording). Compare with haswell-e5-2699v3-2s (FD.io CSIT, 18 cores, 2 DPC): different SKU and population.'),
 dict(id='broadwell-e5-2680v4-2s-cod', g='broadwell', tool='mlc v3.1a',
  machine='2 x Intel Xeon E5-2680 v4 (Broadwell-EP) with Cluster-on-Die: 4 NUMA nodes (2 per socket, 7 cores each), HT off; KU Leuven/VSC training repository',
  spec={'sockets': (2, 'S2'), 'cpu_model': ('Intel(R) Xeon(R) CPU E5-2680 v4 @ 2.40GHz', 'S2'), 'cores_per_socket': (14, 'S2 (cpu cores: 14)'),
        'threads_per_core': (1, 'S2 (siblings 14 = cpu cores 14)'), 'l3_per_socket_kib': (17920, 'S2 (cache size: 17920 KB; with COD on, Linux may report the per-cluster share -- the E5-2680 v4 has 35 MB per socket, so 17920 KB is half: one COD cluster)'),
        'numa_mode': ('Cluster-on-Die: 4 NUMA nodes for 2 sockets (nodes 0,1 on one socket and 2,3 on the other, as the MLC latency matrix shows: 141-151 ns within a socket, 184-196 ns across)', 'S1'),
        'memory_kind': ('DDR4 (Type: DDR4), registered Samsung M393A2G40DB1-CRC, dual rank, 16384 MB', 'S3'),
        'memory_mts': (2400, 'S3 (Speed: 2400 MHz, Configured Clock Speed: 2400 MHz)'),
        'dimms_installed': ('8 x 16 GB: CPU1_DIMM1..4 and CPU2_DIMM1..4 (4 per socket, 8 of 16 slots empty)', 'S3'), 'memory_total_kib': (131913236, 'S4 (MemTotal)')},
  datasheet={'memory_channels_per_socket': 4, 'l2_per_core_kib': 256, 'l3_per_socket_mb': 35, 'qpi_links': '2 x 9.6 GT/s'},
  extra_files={'S2': 'info/broadwell_cpuinfo.txt', 'S3': 'info/broadwell_memspecs.txt', 'S4': 'info/broadwell_meminfo.txt'},
  notes='Cluster-on-Die mode (the Broadwell analogue of SNC2): each socket split into 2 NUMA nodes. The node-to-socket assignment (0,1 | 2,3) is read from the latency matrix, not stated. The bandwidth matrix shows ~36.4 GB/s per local node and 18.9-20.2 GB/s to the sibling cluster. mlc v3.1a wording as in the ivybridge file.'),
 dict(id='skylake-gold6140-2s', g='skylake', tool='mlc v3.10',
  machine='2 x Intel Xeon Gold 6140 (Skylake-SP), HT off, SNC off (2 NUMA nodes); KU Leuven/VSC training repository (file updated 2023-04-13)',
  spec={'sockets': (2, 'S2 (lscpu Socket(s): 2)'), 'cpu_model': ('Intel(R) Xeon(R) Gold 6140 CPU @ 2.30GHz', 'S2'), 'cores_per_socket': (18, 'S2 (Core(s) per socket: 18)'),
        'threads_per_core': (1, 'S2 (Thread(s) per core: 1)'), 'l2_per_core_kib': (1024, 'S2 (L2 cache: 1024K)'), 'l3_per_socket_kib': (25344, 'S2 (L3 cache: 25344K)'),
        'numa_mode': ('2 NUMA nodes (NUMA node(s): 2; node0 CPUs 0-17, node1 18-35): SNC off', 'S2'), 'memory_total_kib': (197748740, 'S4 (MemTotal)')},
  datasheet={'memory_channels_per_socket': 6, 'memory_kind_max': 'DDR4-2666', 'upi_links': '3 x 10.4 GT/s'},
  extra_files={'S2': 'info/skylake_lscpu.txt', 'S4': 'info/skylake_meminfo.txt'},
  notes='DIMM population and speed not stated (no dmidecode memory file for this machine); 192 GB total fits 12 x 16 GB (6 channels x 1 DPC x 2 sockets) but that is an inference. The cpuinfo/lscpu files date from 2020 while the mlc file was updated 2023; assumed same node type. Latency measured with random access (prefetchers could not be modified).'),
 dict(id='cascadelake-gold6240-2s', g='cascadelake', tool='mlc v3.11a',
  machine='2 x Intel Xeon Gold 6240 (Cascade Lake-SP), HT off, SNC off (2 NUMA nodes); KU Leuven/VSC training repository (NOT an FD.io CSIT server)',
  spec={'sockets': (2, 'S2 (Proc 1, Proc 2)'), 'cpu_model': ('Intel(R) Xeon(R) Gold 6240 CPU @ 2.60GHz', 'S2'), 'cores_per_socket': (18, 'S2 (Core Count: 18); S5 (cpu cores: 18)'),
        'threads_per_core': (1, 'S5 (siblings 18 = cpu cores 18; dmidecode Thread Count 36 is the capability)'), 'l2_per_socket_kib': (18432, 'S3 (L2-Cache Installed Size: 18 MB)'), 'l3_per_socket_kib': (25344, 'S3 (L3-Cache Installed Size: 25344 kB)'),
        'numa_mode': ('2 NUMA nodes (one per socket), per the 2x2 MLC matrices', 'S1'), 'memory_total_kib': (197688140, 'S4 (MemTotal)')},
  datasheet={'memory_channels_per_socket': 6, 'memory_kind_max': 'DDR4-2933', 'upi_links': '3 x 10.4 GT/s', 'l2_per_core_kib': 1024},
  extra_files={'S2': 'info/cascadelake_dmidecode_processor.txt', 'S3': 'info/cascadelake_dmidecode_cache.txt', 'S4': 'info/cascadelake_meminfo.txt', 'S5': 'info/cascadelake_cpuinfo.txt'},
  notes='DIMM population/speed not stated; 192 GB total fits 12 x 16 GB (1 DPC) but that is an inference. An older mlc run of a Cascade Lake node (info/cascadelake_mlc_avx512.txt, 2020) exists in the same repository and was not recorded. Latency with random access.'),
 dict(id='icelake-8360y-2s', g='icelake', tool='mlc v3.11a',
  machine='2 x Intel Xeon Platinum 8360Y (Ice Lake-SP), HT off, SNC off (2 NUMA nodes); KU Leuven/VSC training repository',
  spec={'sockets': (2, 'S2 (CPU0, CPU1)'), 'cpu_model': ('Intel(R) Xeon(R) Platinum 8360Y CPU @ 2.40GHz', 'S2'), 'cores_per_socket': (36, 'S2 (Core Count: 36)'),
        'threads_per_core': (1, 'S2 (Thread Count: 36); S5 (siblings 36 = cpu cores 36)'), 'l2_per_socket_kib': (46080, 'S3 (L2-Cache Installed Size: 45 MB)'), 'l3_per_socket_kib': (55296, 'S3 (L3-Cache Installed Size: 54 MB); S5 (cache size: 55296 KB)'),
        'numa_mode': ('2 NUMA nodes (one per socket), per the 2x2 MLC matrices', 'S1'), 'memory_total_kib': (263707520, 'S4 (MemTotal)')},
  datasheet={'memory_channels_per_socket': 8, 'memory_kind_max': 'DDR4-3200', 'upi_links': '3 x 11.2 GT/s', 'l2_per_core_kib': 1280},
  extra_files={'S2': 'info/icelake_dmidecode_processor.txt', 'S3': 'info/icelake_dmidecode_cache.txt', 'S4': 'info/icelake_meminfo.txt', 'S5': 'info/icelake_cpuinfo.txt'},
  notes='DIMM population/speed not stated; 256 GB total fits 16 x 16 GB (8 channels x 1 DPC x 2 sockets) -- inference. Latency with random access.'),
 dict(id='sapphirerapids-8468-2s-snc4', g='sapphirerapids', tool='mlc v3.11a',
  machine='2 x Intel Xeon Platinum 8468 (Sapphire Rapids), HT off, SNC4: 8 NUMA nodes (4 per socket, 12 cores each); KU Leuven/VSC training repository',
  spec={'sockets': (2, 'S2 (CPU0 ...); S5 (physical id 0 and 1, 48 processors each)'), 'cpu_model': ('Intel(R) Xeon(R) Platinum 8468', 'S2'), 'cores_per_socket': (48, 'S2 (Core Count: 48)'),
        'threads_per_core': (1, 'S5 (siblings 48 = cpu cores 48; dmidecode Thread Count 96 is the capability)'), 'l2_per_socket_kib': (98304, 'S3 (L2-Cache Installed Size: 96 MB)'), 'l3_per_socket_kib': (107520, 'S3 (L3-Cache Installed Size: 105 MB); S5 (cache size: 107520 KB)'),
        'numa_mode': ('SNC4 (inferred): 8 NUMA nodes for 2 sockets; nodes 0-3 one socket, 4-7 the other (MLC: 95-97 ns local, 102-123 ns within socket, 186-189 ns across)', 'S1'),
        'frequency_ghz': (2.1, 'S2 (Current Speed: 2100 MHz; Max Speed: 3800 MHz)'), 'memory_total_kib': (263752348, 'S4 (MemTotal)')},
  datasheet={'memory_channels_per_socket': 8, 'memory_kind_max': 'DDR5-4800', 'upi_links': '4 x 16 GT/s', 'l2_per_core_kib': 2048, 'compute_tiles': 4},
  extra_files={'S2': 'info/sapphirerapids_dmidecode_processor.txt', 'S3': 'info/sapphirerapids_dmidecode_cache.txt', 'S4': 'info/sapphirerapids_meminfo.txt', 'S5': 'info/sapphirerapids_cpuinfo.txt'},
  notes='The published mlc file is TRUNCATED: the bandwidth matrix row 7 ends after column 5 (columns 6 and 7 missing) and there is no loaded-latency or c2c section. The SNC mode is not stated by the source; 8 NUMA nodes on 2 x 48-core sockets with the latency structure shown imply SNC4. DIMM population/speed not stated; 256 GB total fits 16 x 16 GB (1 DPC) -- inference. Latency with random access. Within-socket latency asymmetry (e.g. node0->3 123.2 ns vs node3->0 119.0 ns) as published.'),
]
for m in machines:
    p = f"info/{m['g']}_mlc.txt"
    text = show(p)
    meas = mlcparse.parse(text, m['tool'], 'S1')
    spec = {k: {'value': v[0], 'source': v[1]} for k, v in m['spec'].items()}
    spec['datasheet_unverified'] = {'value': m['datasheet'], 'source': DS}
    sources = {'S1': src(p, f"gjbex/Code-optimization info/{m['g']}_mlc.txt (Intel MLC default run output)", 'whole file: ' + text.splitlines()[0])}
    for k, f in m['extra_files'].items():
        sources[k] = src(f, f'gjbex/Code-optimization {f}', 'whole file')
    out = {'id': m['id'], 'machine': m['machine'], 'spec': spec, 'measurements': meas, 'sources': sources,
           'notes': 'Values copied from the mlc text; GB/s = published MB/sec / 1000 (value_as_published keeps the original). Repository README: "info: some performance measurements (CPU and memory) for HPC hardware" (training material of Geert Jan Bex, KU Leuven/VSC); the cluster/node names are not stated in the files. ' + m['notes']}
    fn = f"/work/wt/corpus-draft/{m['id']}.json"
    json.dump(out, open(fn, 'w'), indent=1)
    import collections
    print(fn, dict(collections.Counter(x['figure'] for x in meas)))
