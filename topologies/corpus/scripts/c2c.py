import json, subprocess, csv, io, statistics
REPO = '/work/.mirror/nviennot+core-to-core-latency/repo'
HEAD = '96a943ac384b78bf54252068f25e2f891bfadc60'
def show(p): return subprocess.check_output(['git', '-C', REPO, 'show', f'HEAD:{p}']).decode()
def load(f):
    rows = list(csv.reader(io.StringIO(show(f'results/{f}'))))
    n = len(rows); M = [[None] * n for _ in range(n)]
    for i, r in enumerate(rows):
        for j, v in enumerate(r):
            if v.strip(): M[i][j] = float(v)
    return M
def val(M, a, b):
    return M[a][b] if M[a][b] is not None else M[b][a]
readme = show('README.md')
def readme_line(key):
    return [l for l in readme.splitlines() if l.startswith(key)][0].strip()
machines = [
 dict(id='epyc-7r13-2s-c6a-metal', csv='AMD EPYC 7R13 48-Core Processor.csv', readme_key='AMD EPYC 7R13, 48 Cores, Milan',
      machine='AWS c6a.metal: AMD EPYC 7R13 (Zen 3, Milan), 48 cores per socket; the CSV has 192 logical CPUs, i.e. 2 sockets x 48 cores x 2 SMT threads',
      phys=96, per_socket=48, group=8, group_name='CCX (8 cores sharing an L3, Zen 3)', sib_offset=96,
      spec={'cpu_model': ('AMD EPYC 7R13 48-Core Processor', 'S1 (CSV file name) and S2 (README: AMD EPYC 7R13, 48 Cores, Milan, 3rd gen, 2021-Q1; From an AWS c6a.metal machine)'),
            'cores_per_socket': (48, 'S2'), 'logical_cpus_in_csv': (192, 'S1 (192 x 192 lower-triangular matrix)'),
            'sockets': ('2 (inferred: 192 logical CPUs / (48 cores x 2 threads); CPUs 48-95 are ~200 ns from CPU 0)', 'S1'),
            'ccx': ('groups of 8 cores (README: "cores arranged in 6 groups of 8 in which latency is excellent within (23ns)")', 'S2')},
      extra_note='ANOMALY: within CPUs 0-47 (socket 0 by the assumed numbering) other-CCX pairs are 91-109 ns as the README says, but within CPUs 48-95 other-CCX pairs are 185-201 ns, as slow as cross-socket pairs; the README text describes only 6 groups of 8 (one socket). Either the second socket behaved differently during the run or the CPU numbering differs from the assumption; treat the socket-1 classes with caution. ',
      readme_quote='We can see cores arranged in 6 groups of 8 in which latency is excellent within (23ns). When data crosses groups, the latency jumps to around 110ns. Note, that the last 3 groups have a better cross-group latency than the first 3 (~90ns).'),
 dict(id='xeon-8375c-2s-c6i-metal', csv='Intel(R) Xeon(R) Platinum 8375C CPU @ 2.90GHz.csv', readme_key='Intel Xeon Platinum 8375C, 2.90GHz, 32 Cores',
      machine='AWS c6i.metal: Intel Xeon Platinum 8375C (Ice Lake-SP), 32 cores per socket; the CSV has 128 logical CPUs = 2 sockets x 32 cores x 2 threads',
      phys=64, per_socket=32, group=None, sib_offset=64,
      spec={'cpu_model': ('Intel(R) Xeon(R) Platinum 8375C CPU @ 2.90GHz', 'S1 (file name); S2 (README: Intel Xeon Platinum 8375C, 2.90GHz, 32 Cores, Ice Lake, 3rd gen, 2021-Q2; From an AWS c6i.metal machine)'),
            'cores_per_socket': (32, 'S2'), 'logical_cpus_in_csv': (128, 'S1'), 'sockets': ('2 (inferred: 128 logical CPUs; CPUs 32-63 are ~100-110 ns from CPU 0, CPU 64 is 8.1 ns = SMT sibling)', 'S1')},
      readme_quote=None),
 dict(id='xeon-gold6242-2s-c2c', csv='Dual Intel(R) Xeon Gold 6242 @ 2.8GHz.csv', readme_key='Intel Xeon Gold 6242, 16 Cores',
      machine='Dual Intel Xeon Gold 6242 (Cascade Lake-SP), 16 cores per socket, HT on (64 logical CPUs); contributed to nviennot/core-to-core-latency (not an FD.io CSIT server)',
      phys=32, per_socket=16, group=None, sib_offset=32,
      spec={'cpu_model': ('Intel(R) Xeon Gold 6242 @ 2.8GHz', 'S1 (file name: Dual Intel(R) Xeon Gold 6242 @ 2.8GHz.csv)'), 'sockets': (2, 'S1 (file name "Dual ...")'),
            'cores_per_socket': (16, 'S2 (README: Intel Xeon Gold 6242, 16 Cores, Cascade Lake, 2019-Q2)'), 'logical_cpus_in_csv': (64, 'S1')},
      readme_quote=None),
 dict(id='graviton3-1s-c2c', csv='AWS Graviton3.csv', readme_key='AWS Graviton3',
      machine='AWS Graviton3 (Arm Neoverse V1), 64 cores, 1 socket', phys=64, per_socket=64, group=None, sib_offset=None,
      spec={'cpu_model': ('AWS Graviton3', 'S1, S2'), 'sockets': (1, 'S2 (listed under "Single socket results")'), 'cores_per_socket': (64, 'S2 (AWS Graviton3, 64 Cores, Arm Neoverse, 3rd gen, 2021-Q4)'), 'threads_per_core': (1, 'S1 (64 logical CPUs)')},
      readme_quote=None),
 dict(id='graviton2-1s-c2c', csv='AWS Graviton2.csv', readme_key='AWS Graviton2',
      machine='AWS Graviton2 (Arm Neoverse N1), 64 cores, 1 socket', phys=64, per_socket=64, group=None, sib_offset=None,
      spec={'cpu_model': ('AWS Graviton2', 'S1, S2'), 'sockets': (1, 'S2 (listed under "Single socket results")'), 'cores_per_socket': (64, 'S2 (AWS Graviton2, 64 Cores, Arm Neoverse, 2rd gen, 2020-Q1)'), 'threads_per_core': (1, 'S1 (64 logical CPUs)')},
      readme_quote=None),
]
for m in machines:
    M = load(m['csv'])
    n = len(M)
    classes = {}
    for a in range(m['phys']):
        for b in range(a + 1, m['phys']):
            v = val(M, a, b)
            if v is None: continue
            sa, sb = a // m['per_socket'], b // m['per_socket']
            if sa != sb: k = 'other socket'
            elif m['group'] and a // m['group'] == b // m['group']: k = f'socket {sa} (cpus of that socket), same ' + m['group_name']
            elif m['group']: k = f'socket {sa}, other CCX'
            elif m['per_socket'] != m['phys']: k = f'same socket (socket {sa})'
            else: k = 'same socket'
            classes.setdefault(k, []).append(v)
    if m['sib_offset']:
        classes['SMT sibling (cpu i and i+%d)' % m['sib_offset']] = [val(M, a, a + m['sib_offset']) for a in range(m['phys'])]
    meas = []
    stated = readme_line('AMD EPYC 7R13') if m['id'].startswith('epyc') else None
    line = [l for l in readme.splitlines() if l.startswith(m['readme_key'])]
    if line and m['id'] == 'xeon-gold6242-2s-c2c':
        meas.append({'figure': 'c2c_latency_ns', 'kind': 'README median latency of the SINGLE-socket Gold 6242 result (results/Intel(R) Xeon Gold 6242 @ 2.8GHz.csv, same contributor) -- not necessarily this dual-socket run', 'value_as_published': line[0].split('|')[-1].strip(), 'tool': 'core-to-core-latency', 'source': 'S2'})
    elif line:
        meas.append({'figure': 'c2c_latency_ns', 'kind': 'README median latency (as stated)', 'value_as_published': line[0].split('|')[-1].strip(), 'tool': 'core-to-core-latency (CAS on one shared cache line, round trip)', 'source': 'S2'})
    for k, vs in classes.items():
        vs = sorted(vs)
        meas.append({'figure': 'c2c_latency_ns', 'kind': k, 'value': round(statistics.median(vs), 2), 'min': round(vs[0], 2), 'max': round(vs[-1], 2), 'pairs': len(vs),
                     'derived': 'median/min/max computed by this corpus over the CSV cells of the class (logical CPU ids mapped to sockets by the inference in spec.sockets); not a figure printed by the source',
                     'tool': 'core-to-core-latency (CAS on one shared cache line)', 'source': 'S1'})
    cells = [(0, 1), (0, m['phys'] // 2 - 1 if m['per_socket'] == m['phys'] else m['per_socket'] - 1)]
    if m['group']: cells.append((0, m['group']))
    if m['per_socket'] != m['phys']: cells.append((0, m['per_socket']))
    if m['sib_offset']: cells.append((0, m['sib_offset']))
    for a, b in cells:
        meas.append({'figure': 'c2c_latency_ns', 'kind': 'single cell copied from the CSV', 'cpu_a': a, 'cpu_b': b, 'value': val(M, a, b), 'tool': 'core-to-core-latency', 'source': 'S1'})
    spec = {k: {'value': v[0], 'source': v[1]} for k, v in m['spec'].items()}
    out = {'id': m['id'], 'machine': m['machine'], 'spec': spec, 'measurements': meas,
           'sources': {'S1': {'url': f"https://github.com/nviennot/core-to-core-latency/blob/{HEAD}/results/{m['csv'].replace(' ', '%20')}", 'title': f"nviennot/core-to-core-latency results/{m['csv']}", 'date': 'repository HEAD 2023-01-17', 'quote_or_location': 'lower-triangular CSV: row i, column j = latency (ns) between logical CPUs i and j'},
                       'S2': {'url': f'https://github.com/nviennot/core-to-core-latency/blob/{HEAD}/README.md', 'title': 'nviennot/core-to-core-latency README', 'date': 'repository HEAD 2023-01-17', 'quote_or_location': (line[0] if line else '') + ((' ; ' + m['readme_quote']) if m['readme_quote'] else '')}},
           'notes': m.get('extra_note', '') + 'Only core-to-core figures exist for this machine (no memory measurements, no DIMM/NUMA-mode data). The CSV holds one mean per CPU pair (the tool measures a compare-and-swap round trip on one cache line; README: "the latency it takes for a CPU to send a message to another CPU via its cache coherence protocol"). Linux CPU numbering (first all physical cores socket by socket, then the SMT siblings) is assumed, checked against the matrix (sibling pairs show ~8-13 ns).'}
    fn = f"/work/wt/corpus-draft/{m['id']}.json"
    json.dump(out, open(fn, 'w'), indent=1)
    print(fn, [(x['kind'], x.get('value', x.get('value_as_published'))) for x in meas])
