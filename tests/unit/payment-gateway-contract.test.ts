import { createTestGateway, type CardDetails } from "~/platform/payments/gateway.server";
import { paymentGatewayContract } from "./payment-gateway-contract";

const card = (number: string): CardDetails => ({ number, expMonth: 12, expYear: 2030, cvv: "123", nameOnCard: "Pat Doe", postalCode: "28358" });

// The built-in test gateway: our own card fields' numbers (decision 200).
paymentGatewayContract("the test gateway", async () => ({
  gateway: createTestGateway(),
  methods: {
    good: () => ({ kind: "card", card: card("4242424242424242") }),
    other: () => ({ kind: "card", card: card("5555555555554444") }),
    declined: () => ({ kind: "card", card: card("4000000000000002") }),
    savesButDeclines: () => ({ kind: "card", card: card("4000000000000341") }),
  },
}));
