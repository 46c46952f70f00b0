/** The one stylesheet of the login, consent, error and account pages. */
export const STYLESHEET = `
:root{--fg:#1d2330;--muted:#5b6475;--line:#dde1e8;--bg:#f5f6f8;--card:#fff;--accent:#2453d6;--accent-fg:#fff;--danger:#b42318}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--fg);font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;overflow-wrap:anywhere}
.brand{display:flex;align-items:center;gap:.5rem;padding:1rem 1.5rem;font-weight:600}
.brand .name{min-width:0}
.logo{flex:none;display:inline-grid;place-items:center;width:1.75rem;height:1.75rem;border-radius:.4rem;background:var(--accent);color:var(--accent-fg)}
main{max-width:30rem;margin:1rem auto 3rem;padding:2rem;background:var(--card);border:1px solid var(--line);border-radius:.75rem}
main.wide{max-width:52rem}
h1{font-size:1.4rem;margin:0 0 .5rem}
h2{font-size:1.1rem;margin:2rem 0 .5rem}
p{margin:.5rem 0}
.muted{color:var(--muted)}
label{display:block;font-weight:500;margin:1rem 0 .25rem}
input[type=email],input[type=password],input[type=text],input[type=url],textarea{width:100%;padding:.6rem .7rem;border:1px solid var(--line);border-radius:.4rem;font:inherit}
input:focus,textarea:focus,button:focus,a:focus{outline:3px solid #9bb4f5;outline-offset:1px}
fieldset{border:0;padding:0;margin:1rem 0}
legend{font-weight:600}
.scope{display:flex;gap:.75rem;align-items:flex-start;padding:.75rem 0;border-top:1px solid var(--line)}
.scope:last-child{border-bottom:1px solid var(--line)}
.scope input{margin-top:.35rem;width:1.1rem;height:1.1rem}
.scope label{margin:0}
.scope .what{display:block;font-weight:400;color:var(--muted)}
.actions{display:flex;gap:.75rem;margin-top:1.5rem;flex-wrap:wrap}
button,a.button{display:inline-block;text-decoration:none;text-align:center;padding:.6rem 1.1rem;border-radius:.4rem;border:1px solid var(--accent);background:var(--accent);color:var(--accent-fg);font:inherit;font-weight:600;cursor:pointer}
button.secondary,a.button.secondary{background:var(--card);color:var(--accent)}
button.danger,a.button.danger{background:var(--card);color:var(--danger);border-color:var(--danger)}
.alert{padding:.6rem .8rem;border-radius:.4rem;background:#fdecea;color:var(--danger)}
.notice{padding:.6rem .8rem;border-radius:.4rem;background:#eaf1fd}
code,.secret{font-family:ui-monospace,SFMono-Regular,Menlo,monospace;font-size:.9em;word-break:break-all}
.secret{display:block;padding:.5rem .6rem;background:var(--bg);border:1px solid var(--line);border-radius:.4rem}
table{width:100%;border-collapse:collapse;margin:.5rem 0}
th,td{text-align:left;padding:.5rem .4rem;border-top:1px solid var(--line);vertical-align:top}
ul.plain{list-style:none;margin:0 0 .25rem;padding:0}
.row-actions{display:flex;flex-direction:column;align-items:flex-start;gap:.5rem}
table.tight th,table.tight strong,table.tight .button,table.tight button{overflow-wrap:normal}
.visually-hidden{position:absolute;width:1px;height:1px;overflow:hidden;clip-path:inset(50%);white-space:nowrap}
form.inline{display:inline}
.radio{display:flex;gap:1.5rem}
.radio label{font-weight:400;margin:0}
.checks{display:flex;flex-direction:column;gap:.4rem;margin-top:.5rem}
.checks label{font-weight:400;margin:0}
dt{font-weight:600;margin-top:1rem}
dd{margin:.25rem 0 0}
@media (max-width:40rem){
main{margin:0 0 2rem;padding:1.25rem 1rem;border-width:1px 0;border-radius:0}
.brand{padding:.75rem 1rem}
.radio{flex-direction:column;gap:.5rem}
table.stack,table.stack tbody,table.stack tr,table.stack td{display:block;width:100%}
table.stack thead{position:absolute;width:1px;height:1px;overflow:hidden;clip-path:inset(50%)}
table.stack tr{border:1px solid var(--line);border-radius:.5rem;padding:.25rem .75rem;margin:.75rem 0}
table.stack td{border:0;padding:.4rem 0}
table.stack td[data-label]::before{content:attr(data-label);display:block;font-size:.85em;font-weight:600;color:var(--muted)}
.row-actions{flex-direction:row;flex-wrap:wrap}
}
`;
