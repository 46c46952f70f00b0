/** The one stylesheet of the login, consent, error and account pages. */
export const STYLESHEET = `
:root{--fg:#1d2330;--muted:#5b6475;--line:#dde1e8;--bg:#f5f6f8;--card:#fff;--accent:#2453d6;--accent-fg:#fff;--danger:#b42318}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--fg);font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
.brand{display:flex;align-items:center;gap:.5rem;padding:1rem 1.5rem;font-weight:600}
.logo{display:inline-grid;place-items:center;width:1.75rem;height:1.75rem;border-radius:.4rem;background:var(--accent);color:var(--accent-fg)}
main{max-width:30rem;margin:1rem auto 3rem;padding:2rem;background:var(--card);border:1px solid var(--line);border-radius:.75rem}
main.wide{max-width:52rem}
h1{font-size:1.4rem;margin:0 0 .5rem}
h2{font-size:1.1rem;margin:2rem 0 .5rem}
p{margin:.5rem 0}
.muted{color:var(--muted)}
label{display:block;font-weight:500;margin:1rem 0 .25rem}
input[type=email],input[type=password],input[type=text],textarea{width:100%;padding:.6rem .7rem;border:1px solid var(--line);border-radius:.4rem;font:inherit}
input:focus,textarea:focus,button:focus{outline:3px solid #9bb4f5;outline-offset:1px}
fieldset{border:0;padding:0;margin:1rem 0}
legend{font-weight:600}
.scope{display:flex;gap:.75rem;align-items:flex-start;padding:.75rem 0;border-top:1px solid var(--line)}
.scope:last-child{border-bottom:1px solid var(--line)}
.scope input{margin-top:.35rem;width:1.1rem;height:1.1rem}
.scope label{margin:0}
.scope .what{display:block;font-weight:400;color:var(--muted)}
.actions{display:flex;gap:.75rem;margin-top:1.5rem;flex-wrap:wrap}
button{padding:.6rem 1.1rem;border-radius:.4rem;border:1px solid var(--accent);background:var(--accent);color:var(--accent-fg);font:inherit;font-weight:600;cursor:pointer}
button.secondary{background:var(--card);color:var(--accent)}
button.danger{background:var(--card);color:var(--danger);border-color:var(--danger)}
.alert{padding:.6rem .8rem;border-radius:.4rem;background:#fdecea;color:var(--danger)}
.notice{padding:.6rem .8rem;border-radius:.4rem;background:#eaf1fd}
code,.secret{font-family:ui-monospace,SFMono-Regular,Menlo,monospace;font-size:.9em;word-break:break-all}
.secret{display:block;padding:.5rem .6rem;background:var(--bg);border:1px solid var(--line);border-radius:.4rem}
table{width:100%;border-collapse:collapse;margin:.5rem 0}
th,td{text-align:left;padding:.5rem .4rem;border-top:1px solid var(--line);vertical-align:top}
form.inline{display:inline}
.radio{display:flex;gap:1.5rem}
.radio label{font-weight:400;margin:0}
dt{font-weight:600;margin-top:1rem}
dd{margin:.25rem 0 0}
`;
