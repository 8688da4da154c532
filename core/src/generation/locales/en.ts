import type { CopyFacts, DeliveryFact, Locale } from "./locale.js";

const delivery = (d: DeliveryFact): string =>
  d.kind === "free" ? "Delivery is free" : d.kind === "paid" ? `Delivery costs ${d.price}` : "We ship quickly";

const priceLine = (f: CopyFacts): string =>
  f.originalPrice ? `Now ${f.price} instead of ${f.originalPrice}.` : `Only ${f.price}.`;

/** English phrases. */
export const en: Locale = {
  code: "en",
  headlines: {
    neutral: [(f) => `${f.title}: made to make a difference`, (f) => `Discover ${f.title}`],
    luxury: [(f) => `${f.title}: uncompromising quality`, (f) => `Indulge in ${f.title}`],
    budget: [(f) => `${f.title} at an unbeatable price`, (f) => `Get ${f.title} for just ${f.price}`],
    eco: [(f) => `${f.title}: a choice that respects the planet`, (f) => `${f.title}, the sustainable choice`],
    urgency: [(f) => `${f.title}: limited offer, act now`, (f) => `Last chance to get ${f.title}`],
    gift: [(f) => `${f.title}: the gift they will remember`, (f) => `Give ${f.title} and make someone smile`],
  },
  subheadlines: {
    neutral: {
      physical: (f) => `${f.summary ?? `Everything you expect, nothing you don't.`} ${priceLine(f)}`,
      service: (f) => `${f.summary ?? `A service built around your needs.`} ${priceLine(f)}`,
    },
    luxury: {
      physical: (f) => `Premium materials and meticulous finishing, for those who want the best. ${priceLine(f)}`,
      service: (f) => `An exclusive, attentive service for those who expect excellence. ${priceLine(f)}`,
    },
    budget: {
      physical: (f) => `Great quality without overspending. ${priceLine(f)}`,
      service: (f) => `Professional results at a fair price. ${priceLine(f)}`,
    },
    eco: {
      physical: (f) => `Designed to last and made with care for people and the planet. ${priceLine(f)}`,
      service: (f) => `A responsible service that keeps its footprint small. ${priceLine(f)}`,
    },
    urgency: {
      physical: (f) => `Stock is limited and this price will not last. ${priceLine(f)}`,
      service: (f) => `Only a few slots are left at this price. ${priceLine(f)}`,
    },
    gift: {
      physical: (f) => `A thoughtful present for the people who matter most. ${priceLine(f)}`,
      service: (f) => `An experience to offer, for any occasion. ${priceLine(f)}`,
    },
  },
  customSubheadline: (f, angle) => `${f.title}: ${angle}. ${priceLine(f)}`,
  ctaLabel: { physical: "Order now", service: "Book now" },
  benefitsTitle: (f) => `Why choose ${f.title}?`,
  toneBenefit: {
    luxury: {
      physical: () => ({ title: "Premium quality", text: "Carefully selected materials and a finish that shows in every detail." }),
      service: () => ({ title: "An exceptional experience", text: "Personal attention at every step, delivered by experienced professionals." }),
    },
    budget: {
      physical: (f) => ({ title: "Best value", text: `Everything you need for ${f.price}, with no hidden costs.` }),
      service: (f) => ({ title: "Fair pricing", text: `A clear price of ${f.price}, with no surprises on the bill.` }),
    },
    eco: {
      physical: () => ({ title: "A responsible choice", text: "Built to last, so you buy less and waste less." }),
      service: () => ({ title: "Low impact", text: "We work in a way that respects people and the environment." }),
    },
    urgency: {
      physical: () => ({ title: "Limited stock", text: "This offer is available while stocks last. Order today to secure yours." }),
      service: () => ({ title: "Limited availability", text: "Slots fill up fast. Book today to secure your date." }),
    },
    gift: {
      physical: () => ({ title: "The perfect gift", text: "A present that delights, for birthdays, holidays or just because." }),
      service: () => ({ title: "A gift to remember", text: "Offer an experience instead of another object." }),
    },
  },
  aboutBenefit: (f) => ({ title: `What ${f.title} offers`, text: f.summary ?? f.title }),
  savingsBenefit: (f) => ({
    title: `Save ${f.savings}`,
    text: `Pay ${f.price} instead of ${f.originalPrice}: that is ${f.savingsPercent}% off.`,
  }),
  benefitPool: {
    physical: [
      () => ({ title: "Quality you can feel", text: "Tested and checked before it leaves our hands." }),
      (f) => ({ title: "Delivered to your door", text: `${delivery(f.delivery)}, and we keep you informed until it arrives.` }),
      () => ({ title: "Easy returns", text: "Not convinced? Send it back within 30 days." }),
      () => ({ title: "Secure ordering", text: "Your details are protected and only used for your order." }),
      () => ({ title: "Friendly support", text: "A real person answers your questions, before and after your purchase." }),
    ],
    service: [
      () => ({ title: "Experienced professionals", text: "Skilled people who care about the result." }),
      () => ({ title: "Flexible booking", text: "Pick the date that suits you; we confirm quickly." }),
      () => ({ title: "Satisfaction first", text: "We listen, adapt and make sure you are happy with the result." }),
      () => ({ title: "Transparent pricing", text: "You know the price before you book." }),
      () => ({ title: "Responsive support", text: "Questions before or after your appointment? We are here to help." }),
    ],
  },
  galleryTitle: (f) => `${f.title} in pictures`,
  galleryAlt: (f, i) => `${f.title}, picture ${i}`,
  socialProofTitle: "What our customers say",
  quotes: {
    physical: [
      (f) => `${f.title} is exactly what I was looking for. Great quality.`,
      () => "Fast delivery and carefully packed. I recommend it.",
      () => "Excellent value for money. I have already ordered a second one.",
    ],
    service: [
      (f) => `${f.title} exceeded my expectations. Very professional.`,
      () => "Booking was easy and everything was on time.",
      () => "Attentive, friendly and effective. I will book again.",
    ],
  },
  people: [
    { author: "Sarah M.", role: { physical: "Verified buyer", service: "Verified client" } },
    { author: "James T.", role: { physical: "Verified buyer", service: "Verified client" } },
    { author: "Emily R.", role: { physical: "Repeat customer", service: "Regular client" } },
    { author: "Daniel K.", role: { physical: "Verified buyer", service: "Verified client" } },
    { author: "Olivia P.", role: { physical: "Repeat customer", service: "Regular client" } },
  ],
  faqTitle: "Frequently asked questions",
  faq: {
    physical: (f) => [
      { question: "How much is delivery?", answer: `${delivery(f.delivery)}. Orders are usually delivered within 2 to 5 business days.` },
      { question: "Can I return it?", answer: "Yes. You have 30 days to return the product in its original condition for a full refund." },
      { question: "How do I order?", answer: "Fill in the form at the bottom of this page. We contact you to confirm your order." },
      { question: "How much does it cost?", answer: `${f.title} costs ${f.price}.` },
    ],
    service: (f) => [
      { question: "How do I book?", answer: "Choose a date in the form below. We confirm your booking by email." },
      { question: "Can I cancel or reschedule?", answer: "Yes, free of charge up to 24 hours before your appointment." },
      { question: "How much does it cost?", answer: `${f.title} costs ${f.price}, with no hidden fees.` },
      { question: "What if I have special requests?", answer: "Tell us in the notes field and we will adapt." },
    ],
  },
  offerTitle: {
    neutral: "Our offer",
    luxury: "An exclusive offer",
    budget: "Our best price",
    eco: "A responsible offer",
    urgency: "Limited-time offer",
    gift: "The ideal gift",
  },
  offerText: {
    physical: (f) => `${f.title} for ${f.price}${f.originalPrice ? ` instead of ${f.originalPrice}` : ""}. ${delivery(f.delivery)}.`,
    service: (f) => `${f.title} for ${f.price}${f.originalPrice ? ` instead of ${f.originalPrice}` : ""}. Book in a few clicks.`,
  },
  guarantee: {
    physical: "30-day money-back guarantee",
    service: "Free cancellation up to 24 hours before",
  },
  checkoutTitle: { physical: "Place your order", service: "Book your appointment" },
  submitLabel: { physical: "Confirm my order", service: "Confirm my booking" },
  checkoutNote: {
    physical: "No payment now: we contact you to confirm your order.",
    service: "No payment now: we confirm your booking by email.",
  },
  fieldLabels: { name: "Full name", phone: "Phone number", address: "Address", city: "City", email: "Email", date: "Preferred date", notes: "Notes" },
  ui: {
    deliveryPrice: (p) => `Delivery: ${p}`,
    freeDelivery: "Free delivery",
    save: (p) => `Save ${p}%`,
    requiredHint: "Fields marked * are required.",
    requiredMark: "required",
    choose: "Choose…",
    previewNote: "Preview: the form is disabled until the page is deployed.",
    previewBanner: "Preview",
    confirmationTitle: "Thank you!",
    confirmationText: {
      physical: (t) => `We have received your order for ${t}. We will contact you shortly to confirm it.`,
      service: (t) => `We have received your booking for ${t}. We will confirm it shortly.`,
    },
    yourDetails: "Your details",
    back: "Back to the page",
    notFoundTitle: "Page not found",
    notFoundText: "This page does not exist or is no longer available.",
  },
};
