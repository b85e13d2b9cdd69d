// The console's entry: signs in from a `#token=` fragment if one is there, then shows the
// sign-in view or the shell as the token comes and goes.
import 'uplot/dist/uPlot.min.css';
import './console.css';
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { authState, subscribeAuth, takeTokenFromFragment } from './auth.ts';
import { Shell } from './views/shell.tsx';
import { SignIn } from './views/sign-in.tsx';

takeTokenFromFragment();
// A `#token=` link followed while the page is open changes only the fragment: no reload.
addEventListener('hashchange', takeTokenFromFragment);

function App() {
  const [auth, setAuth] = useState(authState());
  useEffect(() => subscribeAuth(setAuth), []);
  return auth.token ? <Shell key={auth.token} /> : <SignIn reason={auth.reason} />;
}

render(<App />, document.getElementById('app')!);
