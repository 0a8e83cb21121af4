import { createContext, useContext } from "react";

const NonceContext = createContext<string>("");
export const NonceProvider = NonceContext.Provider;
/** The request's CSP nonce, for the few inline scripts and styles we render. */
export const useNonce = () => useContext(NonceContext);
