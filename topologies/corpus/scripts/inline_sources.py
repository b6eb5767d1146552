import json, glob
for f in sorted(glob.glob('/work/wt/corpus-draft/*.json')):
    d = json.load(open(f))
    S = d.get('sources', {})
    for m in d['measurements']:
        s = m.get('source')
        if isinstance(s, str) and s in S:
            m['source'] = dict(S[s], ref=s)
    json.dump(d, open(f, 'w'), indent=1)
print('done')
